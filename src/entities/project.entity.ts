import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { DateTimeColumn, FlagColumn, IdColumn, StringColumn } from "./columns";
import { Organization } from "./organization.entity";

/** A registration project; its id is the wire `group_id`. */
@Entity("project")
export class Project {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  organizationId: number;

  @ManyToOne(() => Organization, { onDelete: "CASCADE" })
  @JoinColumn({ name: "organization_id" })
  organization?: Relation<Organization>;

  @StringColumn(200)
  name: string;

  @StringColumn(3, { default: "USD" })
  currency: string;

  @DateTimeColumn()
  createdAt: Date;

  @FlagColumn()
  archived: boolean;

  /** Family projects link children to a parent registration through `connected_to`. */
  @FlagColumn()
  familySystem: boolean;
}
