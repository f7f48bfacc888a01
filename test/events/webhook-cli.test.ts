import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";
import { outputFields, regapi } from "../cli/support/run-in-process";

// `regapi webhook add|list` (contract §18): the id and the secret printed once; list never shows it.

let db: DomainDatabase;
beforeAll(async () => {
  db = await openDomainDatabase();
});
afterAll(() => db.dispose());

it("webhook add prints the id and the secret once; webhook list shows the endpoint without its secret", async () => {
  const env = { WEBHOOK_ALLOW_PRIVATE: "true" };
  const added = await regapi(
    ["webhook", "add", "--org", "1", "--url", "http://127.0.0.1:9/cli", "--events", "user.created,form.submitted"],
    db.dataSource,
    { env },
  );
  expect(added).toMatchObject({ code: 0, stderr: "" });
  const fields = outputFields(added.stdout);
  expect(fields.id).toMatch(/^\d+$/);
  expect(fields.secret).toMatch(/^whsec_/);
  const listed = await regapi(["webhook", "list", "--org", "1"], db.dataSource, { env });
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain("http://127.0.0.1:9/cli");
  expect(listed.stdout).toContain("user.created,form.submitted");
  expect(listed.stdout).not.toContain(fields.secret);
});

it("without WEBHOOK_ALLOW_PRIVATE a loopback URL is refused with the reason, exit code not 0", async () => {
  const refused = await regapi(
    ["webhook", "add", "--org", "1", "--url", "http://127.0.0.1:9/x", "--events", "user.created"],
    db.dataSource,
  );
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toBe(
    "regapi: url resolves to a loopback, private or link-local address (127.0.0.1); such URLs are refused unless WEBHOOK_ALLOW_PRIVATE=true.\n",
  );
});
