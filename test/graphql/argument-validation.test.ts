import "reflect-metadata";
import { validateOrReject } from "class-validator";
import { ArgumentValidationError } from "type-graphql";
import { validateArguments } from "../../src/graphql/execution/argument-validation";
import { UserArgs, UserFilterInput, UsersArgs } from "../../src/graphql/inputs/user-query.input";

// validateArguments replaces type-graphql's own call of class-validator (validate: true) and must
// refuse exactly what that refused: it skips arguments whose class declares no constraint, and
// those whose every constraint it can vouch for (argument-validation.ts), running class-validator
// on everything else.

jest.mock("class-validator", () => {
  const actual = jest.requireActual<typeof import("class-validator")>("class-validator");
  return { ...actual, validateOrReject: jest.fn(actual.validateOrReject) };
});
const validatorCalls = () => (validateOrReject as jest.Mock).mock.calls.length;

const data = { resolverData: {} as never, type: UsersArgs };
const validate = async (value: unknown) => validateArguments(value, data.type, data.resolverData);
const usersArgs = (first: number) => Object.assign(new UsersArgs(), { groupId: 1, first });

describe("argument validation", () => {
  beforeEach(() => (validateOrReject as jest.Mock).mockClear());

  it("refuses what class-validator refuses, as type-graphql's ArgumentValidationError", async () => {
    const refusal = await validate(usersArgs(0)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ArgumentValidationError);
    const errors = (refusal as ArgumentValidationError).extensions.validationErrors;
    expect(errors.map((error) => [error.property, Object.keys(error.constraints ?? {})])).toEqual([["first", ["min"]]]);
  });

  it("passes what class-validator passes, and validates every object of a list", async () => {
    await expect(validate(usersArgs(5))).resolves.toBeUndefined();
    await expect(validate([usersArgs(5), usersArgs(0)])).rejects.toBeInstanceOf(ArgumentValidationError);
    // Only the one it cannot vouch for went to class-validator.
    expect(validatorCalls()).toBe(1);
  });

  it("answers as class-validator does for values on, inside and outside every bound", async () => {
    const actual = jest.requireActual<typeof import("class-validator")>("class-validator");
    const filter = (members: Partial<UserFilterInput>) => Object.assign(new UserFilterInput(), members);
    const cases: Partial<UsersArgs>[] = [
      { first: 1 },
      { first: 100 },
      { first: 101 },
      { first: 0 },
      { first: 2.5 },
      { first: null as never, last: 100 },
      { last: -1 },
      { first: "7" as never },
      { filter: filter({ search: "x".repeat(100) }) },
      { filter: filter({ search: "x".repeat(101) }) },
      // 101 UTF-16 code units, 100 characters for class-validator: vouched for by neither, passed by class-validator.
      { filter: filter({ search: `${"x".repeat(99)}😀` }) },
      { filter: filter({ statusId: 0, tagId: 1 }) },
      { filter: filter({ statusId: -1 }) },
      { filter: filter({ tagId: 0 }) },
      { filter: filter({ tagId: 1.5 }) },
      { filter: "everyone" as never },
      { filter: [filter({ tagId: 0 })] as never },
      { filter: Object.assign(Object.create(null) as object, { tagId: 0 }) as never },
      { filter: { tagId: 0 } as never },
    ];
    for (const members of cases) {
      const args = Object.assign(new UsersArgs(), { groupId: 1 }, members);
      const expected = await actual
        .validateOrReject(args, { skipMissingProperties: true, forbidUnknownValues: false })
        .then(
          () => null,
          (errors: unknown) => errors,
        );
      const got = await validate(args).then(
        () => null,
        (error: unknown) => (error as ArgumentValidationError).extensions.validationErrors,
      );
      expect([members, got]).toEqual([members, expected]);
    }
  });

  it("does not run class-validator on a class without constraints, nor on null or scalars", async () => {
    await expect(validate(Object.assign(new UserArgs(), { groupId: 1, cloginId: 2 }))).resolves.toBeUndefined();
    await expect(validate(null)).resolves.toBeUndefined();
    await expect(validate(7)).resolves.toBeUndefined();
    await expect(validate([new UserArgs(), null])).resolves.toBeUndefined();
    expect(validatorCalls()).toBe(0);
  });
});
