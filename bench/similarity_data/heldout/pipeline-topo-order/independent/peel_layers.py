def plan_stages(stages):
    bad = sorted({dep for lst in stages.values() for dep in lst} - stages.keys())
    if bad:
        return {"unknown": bad}
    need = {name: len(set(deps)) for name, deps in stages.items()}
    users = {}
    for name, deps in stages.items():
        for dep in set(deps):
            users.setdefault(dep, []).append(name)
    frontier = sorted(name for name, count in need.items() if count == 0)
    result = []
    while frontier:
        result.append(frontier)
        nxt = []
        for done in frontier:
            for user in users.get(done, ()):
                need[user] -= 1
                if not need[user]:
                    nxt.append(user)
        frontier = sorted(nxt)
    if sum(len(x) for x in result) == len(stages):
        return {"layers": result}
    # peel off stages nobody stuck depends on, repeatedly; what stays is on a cycle
    stuck = {name for name, count in need.items() if count > 0}
    changed = True
    while changed:
        changed = False
        for name in list(stuck):
            if not any(user in stuck for user in users.get(name, ())):
                stuck.discard(name)
                changed = True
    return {"cycle": sorted(stuck)}
