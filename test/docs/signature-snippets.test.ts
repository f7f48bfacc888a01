import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startDeliveryWorker } from "../../src/delivery/delivery-worker";
import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";
import { startReceiver } from "../events/support/receiver";
import { addEndpoint, FAST_DELIVERY, recordTestEvents, silentLogger } from "../events/support/worker-setup";

// The Node and Python snippets that verify a webhook's signature, wherever README.md or docs/
// shows them, run as written against a real delivery (the shell and GraphQL examples run in
// doc-examples.test.ts).

type Verify = (secret: string, header: string, rawBody: string) => boolean;

function snippetFrom(file: string): Verify {
  const text = readFileSync(join(__dirname, "../..", file), "utf8");
  const block = /```js\n([\s\S]*?function verifyRegapiSignature[\s\S]*?)```/.exec(text);
  if (!block) throw new Error(`${file} has no verifyRegapiSignature snippet`);
  const lines = block[1].trim().split("\n");
  expect(lines.length).toBeLessThanOrEqual(10);
  return new Function("require", `${block[1]}\nreturn verifyRegapiSignature;`)(require) as Verify;
}

/** The file's Python snippet, run by python3 on the delivery: prints True or False per case. */
function pythonVerdicts(file: string, secret: string, header: string, bodies: string[]): string[] {
  const text = readFileSync(join(__dirname, "../..", file), "utf8");
  const block = /```python\n([\s\S]*?def verify_regapi_signature[\s\S]*?)```/.exec(text);
  if (!block) throw new Error(`${file} has no verify_regapi_signature snippet`);
  const program = `${block[1]}
import json, sys
case = json.load(sys.stdin)
for body in case["bodies"]:
    print(verify_regapi_signature(case["secret"], case["header"], body.encode()))
`;
  const run = spawnSync("python3", ["-c", program], {
    input: JSON.stringify({ secret, header, bodies }),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return run.stdout.trim().split("\n");
}

const hasPython = spawnSync("python3", ["--version"]).status === 0;

let db: DomainDatabase;
beforeAll(async () => {
  db = await openDomainDatabase();
});
afterAll(() => db.dispose());

const ROOT = join(__dirname, "../..");
const PAGES = ["README.md", ...readdirSync(join(ROOT, "docs")).map((name) => `docs/${name}`)].filter(
  (page) => page.endsWith(".md") && readFileSync(join(ROOT, page), "utf8").includes("function verifyRegapiSignature"),
);

it("the signature snippets are shown somewhere", () => {
  expect(PAGES).toContain("docs/events-and-webhooks.md");
});

it.each(PAGES)(
  "the Node (and, with python3, the Python) snippet of %s verifies a real delivery and rejects a tampered body, a wrong secret or an old timestamp",
  async (file) => {
    const verify = snippetFrom(file);
    const receiver = await startReceiver();
    const { secret } = await addEndpoint(db, receiver.url(`/${file}`));
    const worker = startDeliveryWorker({ state: db.state, logger: silentLogger, config: FAST_DELIVERY });
    try {
      await recordTestEvents(db, 1);
      await receiver.waitFor(1);
      const delivery = receiver.received.find((received) => received.path === `/${file}`)!;
      const header = String(delivery.headers["regapi-signature"]);
      expect(verify(secret, header, delivery.body)).toBe(true);
      expect(verify(secret, header, delivery.body.replace("user.updated", "user.created"))).toBe(false);
      expect(verify(`${secret}x`, header, delivery.body)).toBe(false);
      expect(verify(secret, header.replace(/t=\d+/, "t=1000"), delivery.body)).toBe(false);
      if (hasPython) {
        expect(
          pythonVerdicts(file, secret, header, [delivery.body, delivery.body.replace("user.updated", "user.created")]),
        ).toEqual(["True", "False"]);
      }
    } finally {
      await worker.stop();
      await receiver.close();
    }
  },
);
