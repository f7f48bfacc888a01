import { getMetadataStorage, validateOrReject, type ValidationError } from "class-validator";
import { ArgumentValidationError, type ValidatorFn } from "type-graphql";

// type-graphql's `validate: true` runs class-validator on every arguments object of every call,
// whether its class declares a constraint or not: a validation executor, a scan of every
// constraint the application declares for those of the class, and three promises. The `user`
// root's arguments (UserArgs: groupId, cloginId) declare none, and the nested read paid that on
// every request. This is type-graphql's own validation (resolvers/validate-arg.ts of type-graphql
// 2.0.0-rc.4, with `validate: true` and no options: skipMissingProperties, forbidUnknownValues
// off), except that an object whose class declares no constraint is passed without running
// class-validator: with those options class-validator finds nothing on it (no constraint, no
// nested validation, no whitelist).

const OPTIONS = { skipMissingProperties: true, forbidUnknownValues: false } as const;

// Constraints are declared by decorators when their classes load, before the schema is built.
type ValidatedClass = Parameters<ReturnType<typeof getMetadataStorage>["getTargetValidationMetadatas"]>[0];
const constrained = new WeakMap<ValidatedClass, boolean>();

function declaresConstraints(value: object): boolean {
  const target = value.constructor as ValidatedClass | undefined;
  if (!target) return true;
  let known = constrained.get(target);
  if (known === undefined) {
    known = getMetadataStorage().getTargetValidationMetadatas(target, "", false, false).length > 0;
    constrained.set(target, known);
  }
  return known;
}

const validated = (value: unknown): value is object => value !== null && typeof value === "object";

export const validateArguments: ValidatorFn = async (value: unknown) => {
  if (!validated(value)) return;
  const items = Array.isArray(value) ? value.filter(validated) : [value];
  const checked = items.filter(declaresConstraints);
  if (checked.length === 0) return;
  try {
    await Promise.all(checked.map((item) => validateOrReject(item, { ...OPTIONS })));
  } catch (errors) {
    throw new ArgumentValidationError(errors as ValidationError[]);
  }
};
