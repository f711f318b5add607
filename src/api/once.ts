/** `make`, called once, the first time the function it returns is: the project's one memoise helper. */
export const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
};
