/** Limits of the scan shared by its spec (no SDK) and its implementation. */

/** Sources one scan reads at most (each S3 source reads up to a month of reports); more are listed as not scanned. */
export const MAX_SCAN_SOURCES = 100;
