"""The profiles beside conformance: ``fuzz`` (the inputs of the robustness profile) and ``load`` (the load
profile on Locust, its own front door).
"""
