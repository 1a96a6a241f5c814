"""The JSON-RPC loop the test servers share: one message a line on stdin, one answer a
line on stdout; `answer(message)` gives the result, or None for "method not found";
`after(message)` runs once the answer is sent."""

import json
import sys


def serve(answer, after=None):
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        if "id" not in message:
            continue
        result = answer(message)
        if result is None:
            error = {"code": -32601, "message": "method not found"}
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": error}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if after:
            after(message)
