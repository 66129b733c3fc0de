/**
 * A message another instance published on the state's bus (`StateBus`), read from its JSON
 * payload; undefined for a payload that is not JSON, which the receiver drops.
 */
export function readBusMessage<T>(payload: string): T | undefined {
  try {
    return JSON.parse(payload) as T;
  } catch {
    return undefined;
  }
}
