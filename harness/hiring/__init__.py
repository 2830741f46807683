"""The hiring family: hiring a teammate through the product's form and delegating to it (steps), and its rules."""
