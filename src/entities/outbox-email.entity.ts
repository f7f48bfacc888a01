import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { DateTimeColumn, IdColumn, StringColumn, TextColumn } from "./columns";
import { Registration } from "./registration.entity";

export const OUTBOX_STATES = ["pending", "sent", "failed"] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

/** An email waiting to be delivered, written in the same transaction as its cause (transactional outbox). */
@Entity("outbox_email")
@Index(["state", "createdAt"])
export class OutboxEmail {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  registrationId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @TextColumn()
  toAddresses: string;

  @TextColumn()
  subject: string;

  @TextColumn()
  body: string;

  @StringColumn(10, { default: "pending" })
  state: OutboxState;

  @DateTimeColumn()
  createdAt: Date;

  @DateTimeColumn({ nullable: true })
  sentAt: Date | null;
}
