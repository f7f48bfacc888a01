import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { DateTimeColumn, IdColumn, StringColumn } from "./columns";
import { Registration } from "./registration.entity";

/**
 * A one-time login token from users `login` (contract §10): it hands one registration to a front
 * end. Only the SHA-256 of the token is kept; `usedAt` is set when it is redeemed, so it works once.
 */
@Entity("login_token")
export class LoginToken {
  @PrimaryGeneratedColumn()
  id: number;

  @Index({ unique: true })
  @StringColumn(64)
  tokenHash: string;

  @Index()
  @IdColumn()
  registrationId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @DateTimeColumn()
  createdAt: Date;

  @DateTimeColumn()
  expiresAt: Date;

  @DateTimeColumn({ nullable: true })
  usedAt: Date | null;
}

/** A registrant session opened by redeeming a login token; `Authorization: Bearer` on /graphql. Hash only. */
@Entity("registrant_session")
export class RegistrantSession {
  @PrimaryGeneratedColumn()
  id: number;

  @Index({ unique: true })
  @StringColumn(64)
  tokenHash: string;

  @Index()
  @IdColumn()
  registrationId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @DateTimeColumn()
  createdAt: Date;

  @DateTimeColumn()
  expiresAt: Date;
}
