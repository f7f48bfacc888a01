import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { DateTimeColumn, IdColumn, StringColumn, TextColumn } from "./columns";
import { Registration } from "./registration.entity";

export const OUTBOX_STATES = ["queued", "sent", "failed"] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

/** An email waiting to be delivered, written in the same transaction as its cause (transactional outbox). */
@Entity("outbox_email")
@Index(["state", "createdAt"])
@Index(["state", "nextAttemptAt"])
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

  @StringColumn(10, { default: "queued" })
  state: OutboxState;

  /** The Message-ID header; the history entry of the same email carries it too, to show this status. */
  @Index()
  @StringColumn(100, { nullable: true })
  messageId: string | null;

  @IdColumn({ default: 0 })
  attemptCount: number;

  /** When the worker may next try; a claim moves it past the send timeout (see webhook_delivery). */
  @DateTimeColumn({ nullable: true })
  nextAttemptAt: Date | null;

  @StringColumn(500, { nullable: true })
  lastError: string | null;

  @DateTimeColumn()
  createdAt: Date;

  @DateTimeColumn({ nullable: true })
  sentAt: Date | null;
}
