/**
 * A value built on first use and kept for the container's life. For zod schemas
 * and other module-scope values that not every call needs: building them when a
 * module loads counts against every cold start (zod builds each schema eagerly;
 * issue 6 measured milliseconds per schema in the init phase).
 *
 * @example
 * const payloadSchema = builtOnce(() => z.strictObject({ region: z.string() }));
 * payloadSchema().safeParse(value);
 */
export function builtOnce<T>(build: () => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
