import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from "typeorm";
import { DateTimeColumn, FlagColumn } from "./columns";
import { Form } from "./form.entity";
import { Registration } from "./registration.entity";

/** A form in a registration's form set, with its completion and last submission. */
@Entity("registration_form")
export class RegistrationForm {
  @PrimaryColumn({ type: "int" })
  registrationId: number;

  @PrimaryColumn({ type: "int" })
  @Index()
  formId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @ManyToOne(() => Form, { onDelete: "CASCADE" })
  @JoinColumn({ name: "form_id" })
  form?: Relation<Form>;

  @FlagColumn()
  completed: boolean;

  @DateTimeColumn({ nullable: true })
  completedAt: Date | null;

  @DateTimeColumn({ nullable: true })
  submittedAt: Date | null;

  @DateTimeColumn()
  addedAt: Date;
}
