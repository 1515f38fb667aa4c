/**
 * What ransomware leaves in file names, recognized by name only: the extensions
 * well-known families append to the files they encrypt, and the names of the
 * notes they drop beside them. Both lists are deliberately short and specific
 * (a name that also belongs to ordinary files, such as `.enc` or `README.txt`,
 * would flag healthy buckets): they are starting points for the extension spike
 * and ransom-note findings, which also fire on extensions not listed here when
 * they suddenly dominate new files. Sources: the extensions and note names
 * named in public incident write-ups (CISA #StopRansomware advisories for
 * LockBit, BlackCat/ALPHV, Akira, Royal, Black Basta, Rhysida, Phobos; vendor
 * write-ups for WannaCry, Locky, Cerber, STOP/Djvu, Ryuk, Conti). Configurable:
 * a scan's `thresholds.extraRansomwareExtensions` adds to the list.
 */

/** Extensions (lower-case, no dot) appended by well-known ransomware families. */
export const KNOWN_RANSOMWARE_EXTENSIONS: readonly string[] = [
  'wncry',
  'wnry',
  'wcry',
  'locky',
  'zepto',
  'odin',
  'cerber',
  'cerber3',
  'djvu',
  'ryk',
  'conti',
  'lockbit',
  'akira',
  'royal',
  'basta',
  'rhysida',
  'phobos',
  'dharma',
  'crypted',
  'encrypted',
  'locked',
  'crypt',
  'cryptolocker',
  'petya',
  'ragnar',
  'maze',
  'sodinokibi',
  'revil',
  'hive',
  'clop',
  'cl0p',
  'blackcat',
  'makop',
  'medusa',
];

/**
 * File names (the key's last segment, case-insensitive) of ransom notes.
 * Matched whole, so `readme.txt` alone never fires: the patterns name
 * decryption, restoring or recovering files, or a family.
 */
export const RANSOM_NOTE_PATTERNS: readonly RegExp[] = [
  /^[!_#\-\s]*(how|help|instructions?)[_\-\s.]*(to|for)?[_\-\s.]*(decrypt|restore|recover|unlock|back)[\w\-\s.!]*\.(txt|html?|hta|rtf|png|bmp|url)$/i,
  /^[!_#\-\s]*(decrypt|restore|recover)[_\-\s.]*(my|your|all)?[_\-\s.]*(files?|data|instructions?|info)[\w\-\s.!]*\.(txt|html?|hta|rtf)$/i,
  /^[!_#\-\s]*read[_\-\s.]*me[_\-\s.]*(now|first|to[_\-\s.]*decrypt|for[_\-\s.]*decrypt|!+)[\w\-\s.!]*\.(txt|html?|hta)$/i,
  /^_readme\.txt$/i, // STOP/Djvu
  /^@please_read_me@\.txt$/i, // WannaCry
  /^restore-my-files\.txt$/i, // LockBit
  /^[\w-]*\.readme\.txt$/i, // LockBit 3.0: <id>.README.txt
  /^akira_readme\.txt$/i,
  /^readme\.akira$/i,
  /^recover-\w+-files\.txt$/i, // BlackCat/ALPHV
  /^readme\.(locky|cerber|hta)$/i,
  /^#?decrypt[_-]?my[_-]?files#?\.(txt|html?)$/i, // Cerber
  /^info\.hta$/i, // Phobos, Dharma
  /^critical_breach_detected\.pdf$/i, // Rhysida
  /^readme\.txt\.(locked|encrypted)$/i,
];

/** The last path segment of a key. */
export function baseName(key: string): string {
  const slash = key.lastIndexOf('/');
  return slash === -1 ? key : key.slice(slash + 1);
}

/**
 * Whether a key's file name looks like a ransom note.
 *
 * @example looksLikeRansomNote('finance/2024/HOW_TO_DECRYPT_FILES.txt') // true
 * @example looksLikeRansomNote('docs/README.txt') // false
 */
export function looksLikeRansomNote(key: string): boolean {
  const name = baseName(key);
  if (name.length === 0 || name.length > 80) return false;
  for (const pattern of RANSOM_NOTE_PATTERNS) if (pattern.test(name)) return true;
  return false;
}
