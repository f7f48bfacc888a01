import { Entity, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from "typeorm";
import { DateTimeColumn } from "./columns";
import { FormTrigger } from "./form-trigger.entity";
import { Registration } from "./registration.entity";

/** Marks that a trigger acted for a registration: each trigger acts at most once per registration. */
@Entity("trigger_firing")
export class TriggerFiring {
  @PrimaryColumn({ type: "int" })
  registrationId: number;

  @PrimaryColumn({ type: "int" })
  triggerId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @ManyToOne(() => FormTrigger, { onDelete: "CASCADE" })
  @JoinColumn({ name: "trigger_id" })
  trigger?: Relation<FormTrigger>;

  @DateTimeColumn()
  firedAt: Date;
}
