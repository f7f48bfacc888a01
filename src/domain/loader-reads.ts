// The batch reads behind the GraphQL DataLoaders (src/graphql/loaders/), which a transport may
// reach only through the domain. They carry no rule of their own: a loader runs under a field
// whose parent a domain call already read within the caller's scope, and reads that parent's
// rows by id, many parents in one statement.

export { READ_CHUNK } from "../data/batch";
export { readEmailHistory, type EmailHistoryEntry } from "../data/email-history.data";
export {
  readFieldsOfForms,
  readFormSets,
  readFormSetsWithFields,
  readStoredAnswers,
  type FieldDefinition,
  type RegistrationFormState,
  type StoredAnswer,
} from "../data/forms.data";
export { readPersons, type PersonRecord } from "../data/persons.data";
export { readProjects, type ProjectRecord } from "../data/projects.data";
export {
  projectPersonKey,
  readRegistrationsByPerson,
  type ProjectPersonKey,
  type RegistrationRef,
} from "../data/registrations.data";
export { readChildSummaries, refOfSummary } from "../data/user-summary.data";
