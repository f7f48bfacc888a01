import "reflect-metadata";
import { validateOrReject } from "class-validator";
import { ArgumentValidationError } from "type-graphql";
import { validateArguments } from "../../src/graphql/execution/argument-validation";
import { UserArgs, UsersArgs } from "../../src/graphql/inputs/user-query.input";

// validateArguments replaces type-graphql's own call of class-validator (validate: true) and must
// refuse exactly what that refused: it only skips arguments whose class declares no constraint.

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
    expect(validatorCalls()).toBe(3);
  });

  it("does not run class-validator on a class without constraints, nor on null or scalars", async () => {
    await expect(validate(Object.assign(new UserArgs(), { groupId: 1, cloginId: 2 }))).resolves.toBeUndefined();
    await expect(validate(null)).resolves.toBeUndefined();
    await expect(validate(7)).resolves.toBeUndefined();
    await expect(validate([new UserArgs(), null])).resolves.toBeUndefined();
    expect(validatorCalls()).toBe(0);
  });
});
