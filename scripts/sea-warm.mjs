// The warm-up run inside the snapshot: not yet.
export const warmUpSource = () => '';
