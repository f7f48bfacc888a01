import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { IdColumn, StringColumn, TextColumn } from "./columns";
import { Form } from "./form.entity";
import { Project } from "./project.entity";

export const TRIGGER_ACTIONS = ["send_email", "add_product", "add_form"] as const;
export type TriggerAction = (typeof TRIGGER_ACTIONS)[number];

/** What happens when a form is submitted. Only the members of its action are set. */
@Entity("form_trigger")
@Index(["formId", "sortOrder"])
export class FormTrigger {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  projectId: number;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;

  @IdColumn()
  formId: number;

  @ManyToOne(() => Form, { onDelete: "CASCADE" })
  @JoinColumn({ name: "form_id" })
  form?: Relation<Form>;

  @StringColumn(20)
  action: TriggerAction;

  /** send_email: `main_email` (the registrant's address) or a literal address. */
  @StringColumn(254, { nullable: true })
  emailTo: string | null;

  @StringColumn(500, { nullable: true })
  emailSubject: string | null;

  @TextColumn({ nullable: true })
  emailBody: string | null;

  @IdColumn({ nullable: true })
  productId: number | null;

  @IdColumn({ nullable: true })
  quantity: number | null;

  @IdColumn({ nullable: true })
  addFormId: number | null;

  @IdColumn({ default: 0 })
  sortOrder: number;
}
