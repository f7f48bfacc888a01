import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { IdColumn, MoneyCentsColumn, StringColumn } from "./columns";
import { Project } from "./project.entity";

@Entity("product")
export class Product {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  projectId: number;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;

  @StringColumn(200)
  name: string;

  @MoneyCentsColumn()
  priceCents: number;
}
