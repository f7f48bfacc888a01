import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { IdColumn, StringColumn } from "./columns";
import { Organization } from "./organization.entity";
import { Project } from "./project.entity";

/** Admin levels, strongest first. `owner` reaches every project of the organization. */
export const ADMIN_LEVELS = ["owner", "manager", "staff", "viewer"] as const;
export type AdminLevel = (typeof ADMIN_LEVELS)[number];

/** A person working in the organization's back office: can be assigned to registrations and send emails. */
@Entity("admin")
export class Admin {
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

  @StringColumn(10, { nullable: true })
  initials: string | null;

  @StringColumn(7, { nullable: true })
  color: string | null;

  @StringColumn(20, { default: "staff" })
  adminLevel: AdminLevel;
}

/** Which projects a non-owner admin may act in. */
@Entity("admin_project_access")
export class AdminProjectAccess {
  @PrimaryColumn({ type: "int" })
  adminId: number;

  @PrimaryColumn({ type: "int" })
  @Index()
  projectId: number;

  @ManyToOne(() => Admin, { onDelete: "CASCADE" })
  @JoinColumn({ name: "admin_id" })
  admin?: Relation<Admin>;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;
}
