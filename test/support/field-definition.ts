import type { FieldDefinition } from "../../src/data/forms.data";

/** A field of form 1 labelled "Pick", for the pure per-type rules. */
export const fieldOfType = (fieldType: FieldDefinition["fieldType"], options: string[] = []): FieldDefinition => ({
  id: "f_1_1",
  formId: 1,
  name: null,
  label: "Pick",
  fieldType,
  mandatory: false,
  options,
});
