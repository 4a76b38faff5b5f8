def solve(tag, *args):
    # Valid JSON, well under int->str's digit limit, but with no float form.
    return [10**400, -(10**400), {"nested": [10**308 * 10]}]
