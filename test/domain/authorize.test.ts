import { authorize, describeCaller, groupsInScope } from "../../src/domain/authorize";
import { createRequestContext, type Principal } from "../../src/domain/context";
import type { ProcessState } from "../../src/domain/process-state";
import { DomainError } from "../../src/domain/errors";
import { parseScopeNames, type KeyScope } from "../../src/domain/key-scope";

// The one check of an API key's scope, as a function of the request context (no database: the
// principal carries the scope from authentication).

const principal = (scope?: KeyScope): Principal => ({ apiAccountId: 9, apiUser: "ops", organizationId: 3, scope });
const contextOf = (p: Principal | null) =>
  createRequestContext({ dataSource: { manager: {} } } as ProcessState, "req-1", p);

function refusal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error("not refused");
}

describe("authorize", () => {
  it("lets a key without a scope (and the CLI's principal) do everything, returning the principal", () => {
    const full = principal();
    expect(authorize(contextOf(full), "users.update", { groupId: 1 })).toBe(full);
    expect(authorize(contextOf(full), "webhooks", "organization")).toBe(full);
    const unlimited = principal({ operations: null, groupIds: null });
    expect(authorize(contextOf(unlimited), "persons.erase", "organization")).toBe(unlimited);
  });

  it("refuses an operation the key does not name, naming the missing scope and the key's own", () => {
    const ctx = contextOf(principal({ operations: ["read", "users.update"], groupIds: null }));
    expect(authorize(ctx, "read", { groupId: 1 }).apiAccountId).toBe(9);
    expect(refusal(() => authorize(ctx, "users.create", { groupId: 1 }))).toBe(
      'FORBIDDEN: This API key lacks the scope "users.create" (its scope: read, users.update).',
    );
  });

  it("limits a key to its projects and refuses organization-wide operations to it", () => {
    const ctx = contextOf(principal({ operations: null, groupIds: [4, 5] }));
    expect(authorize(ctx, "users.update", { groupId: 5 }).apiAccountId).toBe(9);
    expect(authorize(ctx, "read", "projects-in-scope").apiAccountId).toBe(9);
    expect(refusal(() => authorize(ctx, "users.update", { groupId: 6 }))).toBe(
      "FORBIDDEN: This API key lacks the scope of group_id 6 (it is limited to group_id 4, 5).",
    );
    expect(refusal(() => authorize(ctx, "webhooks", "organization"))).toBe(
      'FORBIDDEN: This API key lacks the organization-wide scope "webhooks" needs (it is limited to group_id 4, 5).',
    );
  });

  it("checks the operation before the project", () => {
    const ctx = contextOf(principal({ operations: ["read"], groupIds: [4] }));
    expect(refusal(() => authorize(ctx, "users.update", { groupId: 6 }))).toMatch(/lacks the scope "users.update"/);
  });

  it("is never called without a principal", () => {
    expect(() => authorize(contextOf(null), "read", { groupId: 1 })).toThrow(/without an authenticated principal/);
  });
});

describe("the scope helpers", () => {
  it("groupsInScope keeps the projects a key reaches, all of them for a key not limited to projects", () => {
    const projects = [{ id: 4 }, { id: 5 }, { id: 6 }];
    expect(groupsInScope(contextOf(principal({ operations: null, groupIds: [6, 4] })), projects)).toEqual([
      { id: 4 },
      { id: 6 },
    ]);
    const all = groupsInScope(contextOf(principal()), projects);
    expect(all).toEqual(projects);
    expect(all).not.toBe(projects);
  });

  it("describeCaller tells the key its own scope, null meaning no limit", () => {
    expect(describeCaller(contextOf(principal({ operations: ["read"], groupIds: [4] })))).toEqual({
      apiAccountId: 9,
      apiUser: "ops",
      organizationId: 3,
      operations: ["read"],
      groupIds: [4],
    });
    expect(describeCaller(contextOf(principal()))).toMatchObject({ operations: null, groupIds: null });
  });

  it("parseScopeNames reads a typed or stored scope: all, known names once, unknown ones named", () => {
    expect(parseScopeNames("all")).toEqual({ names: null, unknown: [] });
    expect(parseScopeNames(" read, users.update ,read,")).toEqual({ names: ["read", "users.update"], unknown: [] });
    expect(parseScopeNames("read,users.delete")).toEqual({ names: ["read"], unknown: ["users.delete"] });
    expect(parseScopeNames("all,bogus")).toEqual({ names: null, unknown: ["bogus"] });
  });
});
