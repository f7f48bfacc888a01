import { DefaultNamingStrategy, type NamingStrategyInterface } from "typeorm";

const toSnake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

/** Columns in snake_case so hand-written SQL reads like the schema (`project_id`, not `projectId`). */
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  columnName(propertyName: string, customName: string | undefined, embeddedPrefixes: string[]): string {
    return toSnake(embeddedPrefixes.concat(customName ?? propertyName).join("_"));
  }

  relationName(propertyName: string): string {
    return toSnake(propertyName);
  }

  joinColumnName(relationName: string, referencedColumnName: string): string {
    return toSnake(`${relationName}_${referencedColumnName}`);
  }
}
