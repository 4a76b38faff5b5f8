"""The studio's services, by concern (import each from its module):

- `problems`: a new problem, and edits of any part of its package (each a draft version);
- `testcases`: the tests table, one test at a time;
- `packages`: `.zip` import and export;
- `versions`: storing draft versions with who changed what;
- `conflicts`: every save checked against the state it was based on, refused or merged;
- `revisions`: one author's consecutive saves collapsed into one draft, earlier states kept;
- `diffs`: a version as its package's files, and the diff between two;
- `validations`: validating a version in the sandbox (a background job);
- `regrades`: regrade previews of a version (a background job);
- `publishing`: making a validated version live and publishing the problem;
- `authors`: co-authors;
- `errors`: `ProblemActionError`, which each of them raises.
"""
