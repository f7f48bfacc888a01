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

// An arguments object that surely passes: every constraint its class declares is one of these,
// and each holds in a way class-validator would find nothing to refuse. Anything else (another
// constraint, a value these cannot vouch for, a list of nested objects) runs class-validator,
// which then refuses with its own messages; so what is refused, and how, is class-validator's.
// The users page's arguments (first, last, filter) paid about 40 µs a request for class-validator
// to find nothing.
type SurelyValid = (value: unknown) => boolean;

/** The check of a constraint (class-validator's `name`), when it can vouch for its arguments. */
const SURELY: Readonly<Record<string, (constraints: readonly unknown[]) => SurelyValid | null>> = {
  isInt: () => (value) => typeof value === "number" && Number.isInteger(value),
  min: ([min]) => (typeof min === "number" ? (value) => typeof value === "number" && value >= min : null),
  max: ([max]) => (typeof max === "number" ? (value) => typeof value === "number" && value <= max : null),
  // class-validator counts a surrogate pair or a variation selector as no character of its own,
  // so a text no longer than `max` in UTF-16 code units is within it.
  maxLength: ([max]) => (typeof max === "number" ? (value) => typeof value === "string" && value.length <= max : null),
};

interface Metadata {
  type: string;
  name?: string;
  propertyName: string;
  constraints?: unknown[];
  each?: boolean;
  groups?: string[];
  validateIf?: unknown;
}

const sureChecks = new WeakMap<ValidatedClass, ((value: object) => boolean) | null>();

/** The sure check of a class's arguments, or null when some constraint of it cannot be vouched for here. */
function sureCheckOf(target: ValidatedClass): ((value: object) => boolean) | null {
  if (sureChecks.has(target)) return sureChecks.get(target)!;
  sureChecks.set(target, null); // a class nesting itself is left to class-validator
  const byProperty = new Map<string, SurelyValid[]>();
  let vouched = true;
  for (const metadata of getMetadataStorage().getTargetValidationMetadatas(target, "", false, false) as Metadata[]) {
    if (metadata.each || (metadata.groups?.length ?? 0) > 0 || metadata.validateIf) vouched = false;
    const checks = byProperty.get(metadata.propertyName) ?? [];
    byProperty.set(metadata.propertyName, checks);
    // @IsOptional: null and undefined are skipped anyway (skipMissingProperties).
    if (metadata.type === "conditionalValidation" && metadata.name === "isOptional") continue;
    if (metadata.type === "nestedValidation") checks.push(surelyValidNested);
    else {
      const check =
        metadata.type === "customValidation" && metadata.name
          ? SURELY[metadata.name]?.(metadata.constraints ?? [])
          : null;
      if (check) checks.push(check);
      else vouched = false;
    }
  }
  const properties = [...byProperty];
  const sure = vouched
    ? (value: object) =>
        properties.every(([name, checks]) => {
          const member = (value as Record<string, unknown>)[name];
          return member === null || member === undefined || checks.every((check) => check(member));
        })
    : null;
  sureChecks.set(target, sure);
  return sure;
}

/** A nested arguments object (not a list) whose own class's constraints surely hold. */
function surelyValidNested(value: unknown): boolean {
  if (!validated(value) || Array.isArray(value) || value instanceof Set || value instanceof Map) return false;
  const target = value.constructor as ValidatedClass | undefined;
  if (!target) return false;
  const sure = sureCheckOf(target);
  return sure !== null && sure(value);
}

const surelyValid = (value: object): boolean => {
  const target = value.constructor as ValidatedClass | undefined;
  const sure = target ? sureCheckOf(target) : null;
  return sure !== null && sure(value);
};

export const validateArguments: ValidatorFn = async (value: unknown) => {
  if (!validated(value)) return;
  const items = Array.isArray(value) ? value.filter(validated) : [value];
  const checked = items.filter((item) => declaresConstraints(item) && !surelyValid(item));
  if (checked.length === 0) return;
  try {
    await Promise.all(checked.map((item) => validateOrReject(item, { ...OPTIONS })));
  } catch (errors) {
    throw new ArgumentValidationError(errors as ValidationError[]);
  }
};
