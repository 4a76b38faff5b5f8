"""The author's custom driver for this attack: calls solve like the function driver would."""


def run(solution, input):
    return solution.solve(*input["args"])
