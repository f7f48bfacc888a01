import { GraphQLError, GraphQLScalarType, Kind } from "graphql";

const DECIMAL = /^-?\d{1,12}\.\d{2}$/;

/**
 * An exact amount of money as a decimal string with two places (e.g. "350.00"), never a float:
 * amounts are integer cents inside and clients must not round them.
 */
export const MoneyScalar = new GraphQLScalarType<string, string>({
  name: "Money",
  description:
    'An exact amount as a decimal string with two places, e.g. "350.00" (integer cents inside; never a float).',
  serialize(value) {
    if (typeof value === "string" && DECIMAL.test(value)) return value;
    throw new GraphQLError("Money values are decimal strings with two places.");
  },
  parseValue(value) {
    if (typeof value === "string" && DECIMAL.test(value)) return value;
    throw new GraphQLError('Money must be a decimal string with two places, e.g. "15.50".');
  },
  parseLiteral(ast) {
    if (ast.kind === Kind.STRING && DECIMAL.test(ast.value)) return ast.value;
    throw new GraphQLError('Money must be a decimal string with two places, e.g. "15.50".');
  },
});
