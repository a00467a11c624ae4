"""Tool: refund an order. Arguments on stdin as JSON ({"order_id": "1234"}); answer on stdout."""

import json
import sys

args = json.load(sys.stdin)
if str(args.get("order_id")) not in ("1234", "5678"):
    sys.exit(f"no order {args.get('order_id')!r} to refund")
print(f"refunded order {args['order_id']}")
