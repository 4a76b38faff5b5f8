"""What every app needs: roles and permission predicates, Markdown rendering, the one
application error with its HTTP mapping, the verdict vocabulary, the channel-group broadcast.

`core` imports no other app of ours; every other app may import it.
"""
