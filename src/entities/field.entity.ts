import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from "typeorm";
import { FlagColumn, IdColumn, StringColumn, TextColumn } from "./columns";
import { Form } from "./form.entity";

export const FIELD_TYPES = [
  "text",
  "textarea",
  "email",
  "number",
  "date",
  "phone",
  "single_choice",
  "multiple_choice",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const CHOICE_FIELD_TYPES: readonly FieldType[] = ["single_choice", "multiple_choice"];

/** A form input. Its id is the wire identifier `f_<formId>_<n>`; `name` is the optional mapped name. */
@Entity("field")
@Index(["formId", "sortOrder"])
@Index(["projectId", "name"], { unique: true })
export class Field {
  @PrimaryColumn({ type: "varchar", length: 64 })
  id: string;

  @IdColumn()
  formId: number;

  @ManyToOne(() => Form, { onDelete: "CASCADE" })
  @JoinColumn({ name: "form_id" })
  form?: Relation<Form>;

  /** Copied from the form so a mapped name can be unique per project. */
  @IdColumn()
  projectId: number;

  @StringColumn(100, { nullable: true })
  name: string | null;

  @StringColumn(500)
  label: string;

  @StringColumn(20)
  fieldType: FieldType;

  @FlagColumn()
  mandatory: boolean;

  /** Options of a choice field, JSON-encoded text (portable: no native JSON columns). */
  @TextColumn({ nullable: true })
  choiceOptions: string | null;

  @IdColumn({ default: 0 })
  sortOrder: number;
}
