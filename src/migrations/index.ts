import { InitialSchema1795255423821 } from "./1795255423821-InitialSchema";
import { ApiKeyRotation1795387142761 } from "./1795387142761-ApiKeyRotation";

// Migrations for MySQL/MariaDB, listed by reference (TypeORM 1 deprecates globs). Add each new one
// here; never edit one that has landed.
export const MIGRATIONS: (new () => object)[] = [InitialSchema1795255423821, ApiKeyRotation1795387142761];
