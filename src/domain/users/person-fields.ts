// The one table of person data lengths, in characters, keyed by the person's domain member names:
// create checks its person members against it and mapped form fields that carry person data are
// held to it too. The values are the sizes of the person table's columns.
export const PERSON_FIELD_MAX_LENGTH = {
  username: 254,
  mainEmail: 254,
  firstName: 100,
  lastName: 100,
  orgName: 200,
} as const;
