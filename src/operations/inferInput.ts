// Type-level reading of an operation's input schema, so `run(ctx)` and `jobs.create` see
// the input's TypeScript type without a second declaration. Three sources, in order: a
// schema branded with `typedSchema<T>()`, a TypeBox schema (its `static` member), or a
// JSON Schema literal read structurally (type, properties, required, items, enum, const).

export type JsonSchema = Record<string, unknown>;

declare const inputType: unique symbol;

/** A JSON Schema that carries the TypeScript type it describes (see `typedSchema`). */
export type TypedSchema<T> = JsonSchema & { readonly [inputType]: T };

/**
 * Brands a JSON Schema with the type it describes, for schemas written apart from the
 * operation (or typed with ajv's JSONSchemaType). Validation still uses the schema itself.
 *
 * @example
 * ```ts
 * const inputSchema = typedSchema<{ amount: number; note?: string }>(schemaFromElsewhere);
 * const charge = defineOperation('charge', { inputSchema, attemptTimeoutMs: 10_000, async run(ctx) { return ctx.input.amount; } });
 * ```
 */
export function typedSchema<T>(schema: JsonSchema): TypedSchema<T> {
  return schema as TypedSchema<T>;
}

/** The input type an operation's `inputSchema` describes. */
export type InferInput<S> = S extends { readonly [inputType]: infer T }
  ? T
  : S extends { readonly static: infer T }
    ? T
    : FromJsonSchema<S>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The TypeScript type of a JSON Schema literal (declared `as const`, or inline). */
export type FromJsonSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly type: readonly (infer T)[] }
      ? FromType<S, T>
      : S extends { readonly type: infer T }
        ? FromType<S, T>
        : unknown;

type FromType<S, T> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? FromJsonSchema<I>[]
            : unknown[]
          : T extends 'object'
            ? FromObject<S>
            : unknown;

type RequiredOf<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

type FromObject<S> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P & string as K extends RequiredOf<S> ? K : never]: FromJsonSchema<P[K]> } & {
        -readonly [K in keyof P & string as K extends RequiredOf<S> ? never : K]?: FromJsonSchema<P[K]>;
      }
    >
  : Record<string, unknown>;
