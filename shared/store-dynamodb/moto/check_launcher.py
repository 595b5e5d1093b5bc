"""Checks that agora_moto_server.py answers as moto_server does.

Starts both on free ports, runs the same random DynamoDB workload against each (puts, deletes,
updates that move an item between index keys or take it out of an index, transactions that
fail and roll back, and index queries with and without a projection, a count or a limit), and
compares every answer. Exits 1 naming the first differences.

    .venv/bin/python shared/store-dynamodb/moto/check_launcher.py [steps]
"""

import os
import random
import socket
import subprocess
import sys
import time

import boto3

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(command, port):
    process = subprocess.Popen(command + ["-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    sys.exit(f"{command[-1]} did not start on port {port}")


def client(port):
    return boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def run(ours, theirs, steps):
    for c in (ours, theirs):
        c.create_table(
            TableName="d", BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "seq", "g1", "g2")],
            GlobalSecondaryIndexes=[
                {"IndexName": name, "Projection": {"ProjectionType": "ALL"},
                 "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}, {"AttributeName": "seq", "KeyType": "RANGE"}]}
                for name, attr in (("gsi1", "g1"), ("gsi2", "g2"))])
    rnd = random.Random(7)
    differences = []

    def both(call):
        answers = []
        for c in (ours, theirs):
            try:
                out = call(c)
                answers.append(("ok", {k: v for k, v in (out or {}).items() if k != "ResponseMetadata"}))
            except Exception as e:  # the same error on both is the same answer
                answers.append(("error", type(e).__name__))
        if answers[0] != answers[1]:
            differences.append((step, answers))

    queries = 0
    for step in range(steps):
        key = f"k{rnd.randrange(60)}"
        item = {"pk": {"S": key}, "seq": {"S": f"{rnd.randrange(1000):05}"}, "n": {"N": str(rnd.choice([1, 2.5, 10, 0.125]))},
                "m": {"M": {"x": {"L": [{"S": "a"}, {"N": "3"}]}}}, "b": {"B": b"\x00\x01"}}
        if rnd.random() < 0.8:
            item["g1"] = {"S": f"v{rnd.randrange(5)}"}
        if rnd.random() < 0.5:
            item["g2"] = {"S": f"w{rnd.randrange(3)}"}
        op = rnd.random()
        if op < 0.3:
            both(lambda c: c.put_item(TableName="d", Item=item))
        elif op < 0.4:
            both(lambda c: c.delete_item(TableName="d", Key={"pk": {"S": key}}))
        elif op < 0.5:
            value = f"v{rnd.randrange(5)}"
            both(lambda c: c.update_item(TableName="d", Key={"pk": {"S": key}}, UpdateExpression="SET g1 = :v, seq = :s",
                                         ExpressionAttributeValues={":v": {"S": value}, ":s": {"S": "00001"}}))
        elif op < 0.55:
            both(lambda c: c.update_item(TableName="d", Key={"pk": {"S": key}}, UpdateExpression="REMOVE g1"))
        elif op < 0.65:
            other = f"k{rnd.randrange(60)}"
            writes = [{"Put": {"TableName": "d", "Item": item}}]
            if other != key:
                writes.append({"Put": {"TableName": "d", "Item": {"pk": {"S": other}, "seq": {"S": "00002"}, "g1": {"S": "v1"}},
                                       "ConditionExpression": "attribute_not_exists(pk)"}})
            both(lambda c: c.transact_write_items(TransactItems=writes))
        else:
            queries += 1
            attr, index = rnd.choice((("g1", "gsi1"), ("g2", "gsi2")))
            value = ("v" if attr == "g1" else "w") + str(rnd.randrange(5))
            extra, mode = {}, rnd.random()
            if mode < 0.3:
                extra = {"ProjectionExpression": "#p, #s, g2, n, b", "ExpressionAttributeNames": {"#p": "pk", "#s": "seq"}}
            elif mode < 0.45:
                extra = {"Select": "COUNT"}
            elif mode < 0.6:
                extra = {"Limit": 2}
            both(lambda c: c.query(TableName="d", IndexName=index, KeyConditionExpression=f"{attr} = :k",
                                   ExpressionAttributeValues={":k": {"S": value}}, **extra))
        if len(differences) >= 5:
            break
    return queries, differences


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    ours_port, theirs_port = free_port(), free_port()
    bin_dir = os.path.dirname(sys.executable)
    servers = [start([sys.executable, os.path.join(HERE, "agora_moto_server.py")], ours_port),
               start([os.path.join(bin_dir, "moto_server")], theirs_port)]
    try:
        queries, differences = run(client(ours_port), client(theirs_port), steps)
    finally:
        for s in servers:
            s.kill()
    if differences:
        for step, (ours, theirs) in differences:
            print(f"step {step}: agora_moto_server {ours}\n          moto_server       {theirs}")
        sys.exit(1)
    print(f"agora_moto_server answered as moto_server: {steps} steps, {queries} index queries")


if __name__ == "__main__":
    main()
