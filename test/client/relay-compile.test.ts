import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_DELIVERY } from "../../src/config/config";
import { MAPLE } from "../fixtures/test-fixture";
import { graphql } from "../support/graphql";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 24 §7: a small Relay app (test/client/relay/) compiled by relay-compiler against the
// committed schema.graphql. relay-compiler checks what Relay needs of a server: @refetchable on
// User needs User to implement Node and Query.node(id); @connection needs connections of the
// cursor specification. Then the operations it wrote run over HTTP, as Relay would send them.
//
// It compiles into a temporary directory, so no generated file is committed (schema changes by
// other work do not leave stale artifacts behind). relay-compiler ships one binary per platform;
// where none runs here the compile tests are skipped with the reason, and only then.

const ROOT = join(__dirname, "..", "..");
const APP_DIR = join(ROOT, "test", "client", "relay");

function relayBinary(): { ok: true; binary: string } | { ok: false; reason: string } {
  const binary = createRequire(__filename)("relay-compiler") as string | null;
  if (binary === null)
    return { ok: false, reason: `relay-compiler ships no binary for ${process.platform}-${process.arch}` };
  const probe = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (probe.error) return { ok: false, reason: `relay-compiler's binary cannot run here: ${probe.error.message}` };
  if (probe.status !== 0)
    return { ok: false, reason: `relay-compiler --version exited ${probe.status}: ${probe.stderr}` };
  return { ok: true, binary };
}

const relay = relayBinary();
if (!relay.ok) console.warn(`Relay compile tests SKIPPED: ${relay.reason}`);
const relayIt = relay.ok ? it : it.skip;

const workDirs: string[] = [];
afterAll(() => {
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

/** Compiles test/client/relay (plus `extraSources`, file name → text) in a fresh directory. */
function compile(extraSources: Record<string, string> = {}) {
  if (!relay.ok) throw new Error(relay.reason);
  const dir = mkdtempSync(join(tmpdir(), "regapi-relay-"));
  workDirs.push(dir);
  cpSync(join(APP_DIR, "src"), join(dir, "src"), { recursive: true });
  for (const [name, text] of Object.entries(extraSources)) writeFileSync(join(dir, "src", name), text);
  const config = JSON.parse(readFileSync(join(APP_DIR, "relay.config.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "relay.config.json"), JSON.stringify({ ...config, schema: join(ROOT, "schema.graphql") }));
  const run = spawnSync(relay.binary, [], {
    cwd: dir,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}`, dir };
}

/** The operation text relay-compiler wrote into an artifact: what a Relay network layer sends. */
function operationText(dir: string, name: string): string {
  const artifact = readFileSync(join(dir, "src", "__generated__", `${name}.graphql.ts`), "utf8");
  const quoted = /"text": ("(?:[^"\\]|\\.)*")/.exec(artifact)?.[1];
  if (!quoted) throw new Error(`${name}: no operation text in its artifact`);
  return JSON.parse(quoted) as string;
}

describe("relay-compiler against schema.graphql", () => {
  relayIt("fails on a selection the schema does not have (the check below can fail)", () => {
    const broken = compile({
      "Broken.ts":
        'import { graphql } from "./graphql-tag";\n\nexport const B = graphql`\n  fragment Broken_user on User {\n    noSuchField\n  }\n`;\n',
    });
    expect(broken.status).not.toBe(0);
    expect(broken.output).toContain("noSuchField");
  });

  describe("the Relay app", () => {
    let compiled: ReturnType<typeof compile> | null = null;
    let t: TestApp;
    beforeAll(async () => {
      if (relay.ok) compiled = compile();
      t = await startTestApp({ config: { delivery: { ...DEFAULT_DELIVERY, webhookAllowPrivate: true } } });
    });
    afterAll(() => t.close());

    const run = async <T>(name: string, variables: Record<string, unknown>) => {
      const response = await graphql<T>(t.app, operationText(compiled!.dir, name), variables);
      expect(response.errors).toBeUndefined();
      return response.data!;
    };

    relayIt("compiles: a refetchable fragment on User (Node) and paginated connections", () => {
      expect({ status: compiled!.status, output: compiled!.output }).toEqual({
        status: 0,
        output: expect.stringContaining("Compilation completed"),
      });
      expect(operationText(compiled!.dir, "UserCardRefetchQuery")).toContain("node(id: $id)");
    });

    relayIt("the connection's first page, its next page and a user's refetch answer as Relay expects", async () => {
      type Page = {
        users: {
          edges: { cursor: string; node: { __typename: string; id: string; cloginId: number; name: string } }[];
          pageInfo: { endCursor: string; hasNextPage: boolean };
        };
      };
      const first = await run<Page>("UsersListQuery", { groupId: MAPLE.groupId });
      expect(first.users.edges).toHaveLength(2);
      expect(first.users.edges[0].node.__typename).toBe("User");
      expect(first.users.pageInfo.hasNextPage).toBe(true);
      expect(first.users.pageInfo.endCursor).toBe(first.users.edges[1].cursor);

      const next = await run<Page>("UsersListPaginationQuery", {
        groupId: MAPLE.groupId,
        count: 2,
        cursor: first.users.pageInfo.endCursor,
      });
      expect(next.users.edges.length).toBeGreaterThan(0);
      const firstIds = new Set(first.users.edges.map((edge) => edge.node.id));
      expect(next.users.edges.some((edge) => firstIds.has(edge.node.id))).toBe(false);

      const user = first.users.edges[0].node;
      const refetched = await run<{ node: { __typename: string; id: string; cloginId: number; name: string } }>(
        "UserCardRefetchQuery",
        { id: user.id },
      );
      expect(refetched.node).toEqual(user);
    });

    relayIt("webhookDeliveries pages as a connection", async () => {
      const created = await graphql<{ createWebhookEndpoint: { endpoint: { endpointId: number } } }>(
        t.app,
        `
          mutation {
            createWebhookEndpoint(input: { url: "http://127.0.0.1:9/relay", events: ["user.updated"] }) {
              endpoint {
                endpointId
              }
            }
          }
        `,
      );
      expect(created.errors).toBeUndefined();
      const endpointId = created.data!.createWebhookEndpoint.endpoint.endpointId;
      const log = await run<{ webhookDeliveries: { edges: unknown[]; pageInfo: Record<string, unknown> } }>(
        "WebhookLogQuery",
        { endpointId },
      );
      expect(log.webhookDeliveries).toEqual({ edges: [], pageInfo: { endCursor: null, hasNextPage: false } });
    });
  });
});
