import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { Admin } from "./admin.entity";
import { DateTimeColumn, IdColumn, StringColumn, TextColumn } from "./columns";
import { Registration } from "./registration.entity";

export const EMAIL_ORIGINS = ["api", "trigger"] as const;
export type EmailOrigin = (typeof EMAIL_ORIGINS)[number];

/** An entry of a registration's sent-email history: recorded by the API or written by a trigger. */
@Entity("email_record")
@Index(["registrationId", "recordedAt"])
export class EmailRecord {
  @PrimaryGeneratedColumn()
  id: number;

  @IdColumn()
  registrationId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @StringColumn(254)
  fromAddress: string;

  @TextColumn()
  toAddresses: string;

  @TextColumn({ nullable: true })
  ccAddresses: string | null;

  @TextColumn({ nullable: true })
  bccAddresses: string | null;

  @TextColumn()
  subject: string;

  @TextColumn()
  body: string;

  @IdColumn({ nullable: true })
  adminId: number | null;

  @ManyToOne(() => Admin, { onDelete: "SET NULL" })
  @JoinColumn({ name: "admin_id" })
  admin?: Relation<Admin> | null;

  @DateTimeColumn()
  recordedAt: Date;

  @StringColumn(10)
  origin: EmailOrigin;

  /** Set on trigger emails: the Message-ID of their outbox row, whose delivery status the history shows. */
  @Index()
  @StringColumn(100, { nullable: true })
  messageId: string | null;
}
