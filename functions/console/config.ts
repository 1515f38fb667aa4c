/**
 * The console function's bundled configuration: the Tools page's data
 * (catalog-view.ts), computed by the CDK at synth time from the catalog and the
 * scenario files and defined at bundle time (esbuild `define`), as the
 * dispatcher's whitelists are: Lambda caps a function's variables at 4 KB
 * (Lambda developer guide, "Lambda quotas"), which the tools' schemas outgrow.
 */
import type { ConsoleCatalog } from './catalog-view';

declare const ETP_CONSOLE_CATALOG: unknown;

/** The global the CDK defines with the JSON of a {@link ConsoleCatalog}. */
export const CONSOLE_CATALOG_GLOBAL = 'ETP_CONSOLE_CATALOG';

/**
 * The bundled catalog.
 *
 * @throws Error when the bundle was built without it (not through lib/console.ts).
 */
export function bundledConsoleCatalog(): ConsoleCatalog {
  const catalog =
    typeof ETP_CONSOLE_CATALOG === 'undefined' ? undefined : (ETP_CONSOLE_CATALOG as ConsoleCatalog);
  if (!catalog || !Array.isArray(catalog.tools) || !Array.isArray(catalog.scenarios)) {
    throw new Error(
      `The console function was bundled without ${CONSOLE_CATALOG_GLOBAL} (lib/console.ts defines it)`,
    );
  }
  return catalog;
}
