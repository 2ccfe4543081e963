"""Reference implementations: well-behaved, durable subjects that every scenario passes against by default
(ARCHITECTURE "Reference implementations"). Each lives in its own subpackage and is servable on its own with
``python -m simulator serve NAME``."""
