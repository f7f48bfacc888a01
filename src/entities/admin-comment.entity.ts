import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { Admin } from "./admin.entity";
import { DateTimeColumn, IdColumn, TextColumn } from "./columns";
import { Registration } from "./registration.entity";

@Entity("admin_comment")
export class AdminComment {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  registrationId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @IdColumn({ nullable: true })
  adminId: number | null;

  @ManyToOne(() => Admin, { onDelete: "SET NULL" })
  @JoinColumn({ name: "admin_id" })
  admin?: Relation<Admin> | null;

  @TextColumn()
  body: string;

  @DateTimeColumn()
  createdAt: Date;
}
