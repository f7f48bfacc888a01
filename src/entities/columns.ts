import { Column, type ColumnOptions } from "typeorm";

// Portable column shapes for SQLite, MySQL 8 and MariaDB 10.11: no native JSON, enum or uuid
// types, an explicit precision on every datetime (MariaDB truncates, MySQL rounds), money in
// integer cents.

export const DateTimeColumn = (options: ColumnOptions = {}) => Column({ type: "datetime", precision: 3, ...options });

export const MoneyCentsColumn = (options: ColumnOptions = {}) => Column({ type: "int", default: 0, ...options });

export const FlagColumn = (options: ColumnOptions = {}) => Column({ type: "boolean", default: false, ...options });

export const IdColumn = (options: ColumnOptions = {}) => Column({ type: "int", ...options });

export const TextColumn = (options: ColumnOptions = {}) => Column({ type: "text", ...options });

export const StringColumn = (length: number, options: ColumnOptions = {}) =>
  Column({ type: "varchar", length, ...options });
