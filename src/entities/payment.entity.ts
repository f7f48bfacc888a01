import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { DateTimeColumn, IdColumn, MoneyCentsColumn, StringColumn, TextColumn } from "./columns";
import { Registration } from "./registration.entity";

@Entity("payment")
export class Payment {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  registrationId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @MoneyCentsColumn()
  amountCents: number;

  @DateTimeColumn()
  paidAt: Date;

  /** How it was paid (card, cheque, …), as the payment system named it. */
  @StringColumn(100, { nullable: true })
  method: string | null;

  @TextColumn({ nullable: true })
  note: string | null;
}
