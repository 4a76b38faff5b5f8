"""The studio's services, by concern (import each from its module):

- `problems`: a new problem, and edits of any part of its package (each a draft version);
- `testcases`: the tests table, one test at a time;
- `packages`: `.zip` import and export;
- `versions`: storing draft versions with who changed what;
- `validations`: validating a version in the sandbox (a background job);
- `regrades`: regrade previews of a version (a background job);
- `publishing`: making a validated version live and publishing the problem;
- `authors`: co-authors;
- `errors`: `ProblemActionError`, which each of them raises.
"""
