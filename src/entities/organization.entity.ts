import { Entity, PrimaryGeneratedColumn } from "typeorm";
import { StringColumn } from "./columns";

/** A customer of the platform; it owns projects, API accounts, admins and persons. */
@Entity("organization")
export class Organization {
  @PrimaryGeneratedColumn()
  id: number;

  @StringColumn(200)
  name: string;
}
