"""The authoring studio's views, thin over studio.services and studio.selectors, by concern:
`problems` (the page and its editors), `testcases`, `packages`, `versions`, `publishing`,
`authors`, and `tokens` (anyone's API tokens); `access` holds who gets in.

Only authors and admins get into the studio: anyone signed out is sent to log in, anyone else
gets 403. Pages are server-rendered; htmx swaps in the statement preview and polls the panels of
a running validation or regrade.
"""
