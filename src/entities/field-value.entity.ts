import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from "typeorm";
import { DateTimeColumn, TextColumn } from "./columns";
import { Field } from "./field.entity";
import { Registration } from "./registration.entity";

/** A registration's answer to a field. Choice answers are a JSON array of option values. */
@Entity("field_value")
export class FieldValue {
  @PrimaryColumn({ type: "int" })
  registrationId: number;

  @PrimaryColumn({ type: "varchar", length: 64 })
  @Index()
  fieldId: string;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @ManyToOne(() => Field, { onDelete: "CASCADE" })
  @JoinColumn({ name: "field_id" })
  field?: Relation<Field>;

  @TextColumn()
  value: string;

  @DateTimeColumn()
  updatedAt: Date;
}
