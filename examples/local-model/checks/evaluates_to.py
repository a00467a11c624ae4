"""A `command` check: does the answer (stdin), as a Python expression, evaluate to argv[1]?"""

import ast
import sys

answer = sys.stdin.read()
try:
    value = eval(compile(ast.parse(answer.strip(), mode="eval"), "<answer>", "eval"), {})
except Exception as error:
    sys.exit(f"not an expression: {error}")
sys.exit(0 if repr(value) == sys.argv[1] else f"evaluates to {value!r}, not {sys.argv[1]}")
