/**
 * English messages for schema violations, installed once per process when a
 * module that reports them loads (args, secret references, scenarios).
 *
 * The messages are what a caller reads to fix its call ("Invalid input: expected
 * number, received string", "Too small: expected array to have >=1 items").
 * Classic `zod` installs this locale as it loads; `zod/mini`, used here for its
 * small bundle and fast cold start, installs none, and every message would be a
 * bare "Invalid input". Only `en` is imported: `z.locales` would bundle every
 * locale (about 260 KiB), and so would any use of zod/mini's namespace as a value
 * (`const { globalRegistry } = z`: esbuild then keeps all its exports, 430 KB in
 * every bundle file, compiled at every cold start); name `z.globalRegistry` where used.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';

z.config(en());
