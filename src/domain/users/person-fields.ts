// The one table of the person's own data: each member's length limit, in characters, keyed by
// its domain name (the sizes of the person table's columns), and the mapped names (a form field's
// `name`, an `update` doc key) that carry it. Create checks its person members against the limits,
// update accepts the mapped names as the person's own fields, and form fields mapped to them are
// held to the same limits and copied to the person.
export const PERSON_FIELD_MAX_LENGTH = {
  username: 254,
  mainEmail: 254,
  firstName: 100,
  lastName: 100,
  orgName: 200,
} as const;

/** Mapped names that also set the person's own data, so the displayed name follows the forms. */
export const PERSON_FIELD_ATTRIBUTES = {
  first_name: "firstName",
  last_name: "lastName",
  org_name: "orgName",
  main_email: "mainEmail",
} as const;

export type PersonFieldName = keyof typeof PERSON_FIELD_ATTRIBUTES;
export type PersonAttribute = (typeof PERSON_FIELD_ATTRIBUTES)[PersonFieldName];
export type PersonAttributes = Partial<Record<PersonAttribute, string | null>>;

/** The person member a mapped name carries, or null for any other name. */
export function personAttributeOf(name: string | null): PersonAttribute | null {
  return name !== null && Object.hasOwn(PERSON_FIELD_ATTRIBUTES, name)
    ? PERSON_FIELD_ATTRIBUTES[name as PersonFieldName]
    : null;
}
