/** A promise the test resolves: lets a handler stop at a known point (`await gate.opened`) until `gate.open()`. */
export function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}
