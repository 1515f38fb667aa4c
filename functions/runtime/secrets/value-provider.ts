import type { SecretReference } from './reference';

/** Reads the raw value a reference points at. */
export interface SecretValueProvider {
  /**
   * @param maxAgeSeconds - how long a cached value may be reused.
   * @throws SecretNotFoundError when the referenced value does not exist.
   */
  read(reference: SecretReference, maxAgeSeconds: number): Promise<string>;
}
