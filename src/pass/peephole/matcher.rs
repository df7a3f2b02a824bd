//! Finding rule matches in a block of decoded instructions (in progress).
