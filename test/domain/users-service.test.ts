import { DomainError } from "../../src/domain/errors";
import { addEmails, createUser, getUser, updateUser } from "../../src/domain/users/users.service";
import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";

// The users service as GraphQL calls it: outcomes in domain terms, errors as coded DomainErrors
// whose problems carry paths in the command's own names (each transport renders its own).

let t: DomainDatabase;
beforeAll(async () => {
  t = await openDomainDatabase();
});
afterAll(() => t.dispose());

async function failure(work: Promise<unknown>): Promise<DomainError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

const baseUpdate = {
  groupId: MAPLE.groupId,
  cloginId: MAPLE.miles,
  markFormsComplete: null,
  submitForms: true,
  disableEmailSending: false,
};
const baseCreate = {
  groupId: MAPLE.groupId,
  cloginId: null,
  connectedTo: null,
  values: {},
  submitForms: true,
  disableEmailSending: false,
};

describe("users service (domain, shared by REST and GraphQL)", () => {
  it("getUser returns the registration's summary; USER_NOT_FOUND for a user not in the project; FORBIDDEN for a foreign group", async () => {
    const outcome = await getUser(t.context(), MAPLE.groupId, MAPLE.childKind);
    expect(outcome).toMatchObject({ groupId: MAPLE.groupId, cloginId: MAPLE.childKind, notices: [] });
    expect(outcome.summary).toMatchObject({
      cloginId: MAPLE.childKind,
      parentCloginId: MAPLE.miles,
      name: "Kind Davis",
    });
    expect((await failure(getUser(t.context(), MAPLE.jazzGroupId, MAPLE.bill))).code).toBe("USER_NOT_FOUND");
    expect((await failure(getUser(t.context(), OTHER.groupId, 300000001))).message).toBe(
      `group_id ${OTHER.groupId} is not a project of your organization`,
    );
  });

  it("the command's shape is checked first, then FORBIDDEN, then the command's rules", async () => {
    const error = await failure(createUser(t.context(), { ...baseCreate, groupId: OTHER.groupId, password: "1" }));
    expect(error.code).toBe("FORBIDDEN");
    expect((await failure(updateUser(t.context(), { ...baseUpdate, groupId: OTHER.groupId, values: null }))).code).toBe(
      "FORBIDDEN",
    );
    const invalidAddress = [{ from: "a@b.test", to: "nope", subject: "s", body: "b" }];
    expect(
      (await failure(addEmails(t.context(), { groupId: OTHER.groupId, cloginId: 1, emails: invalidAddress }))).code,
    ).toBe("FORBIDDEN");
    const shape = await failure(addEmails(t.context(), { groupId: OTHER.groupId, cloginId: 1, emails: [] }));
    expect(shape.code).toBe("VALIDATION_FAILED");
    expect(shape.details.problems).toEqual([
      { path: ["emails"], message: "must hold at least one email", reason: "TOO_FEW_ITEMS", value: [] },
    ]);
  });

  it("validation problems carry the command's own paths", async () => {
    const create = await failure(
      createUser(t.context(), { ...baseCreate, connectedTo: MAPLE.miles, password: "123", mainEmail: "x" }),
    );
    expect(create.code).toBe("VALIDATION_FAILED");
    expect(create.details.problems!.map((p) => p.path)).toEqual([["connectedTo"], ["mainEmail"], ["password"]]);
    const emails = await failure(
      addEmails(t.context(), {
        groupId: MAPLE.groupId,
        cloginId: MAPLE.miles,
        emails: [
          { from: "a@b.test", to: "c@d.test", subject: "s", body: "b" },
          { from: "a@b.test", to: "c@d.test", subject: "s", body: "b", cc: "bad" },
        ],
      }),
    );
    expect(emails.details.problems).toEqual([
      { path: ["emails", 1, "cc"], message: 'holds an invalid address: "bad"', reason: "INVALID_EMAIL", value: "bad" },
    ]);
    const marks = await failure(
      updateUser(t.context(), {
        ...baseUpdate,
        values: null,
        markFormsComplete: Array.from({ length: 1001 }, (_, i) => i),
      }),
    );
    expect(marks.details.problems!.map((p) => p.path)).toEqual([["markFormsComplete"]]);
  });

  it("updateUser reports the marking in domain terms: numeric ids marked, skipped ids as sent, whether values were sent", async () => {
    const outcome = await updateUser(t.context(), {
      ...baseUpdate,
      values: { f_301_3: ["L"] },
      markFormsComplete: ["303", "x"],
    });
    expect(outcome.valuesSent).toBe(true);
    expect(outcome.markFormsComplete).toEqual({
      markedComplete: [303],
      skipped: [{ formId: "x", reason: '"x" is not a form id.' }],
    });
    expect(outcome.summary.cloginId).toBe(MAPLE.miles);
  });
});
