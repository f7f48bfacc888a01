// The one table of person data lengths, in characters, keyed by wire name: create checks its
// person members against it and mapped form fields that carry person data are held to it too.
// The values are the sizes of the person table's columns.
export const PERSON_FIELD_MAX_LENGTH = {
  username: 254,
  main_email: 254,
  first_name: 100,
  last_name: 100,
  org_name: 200,
} as const;
