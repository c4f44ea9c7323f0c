"""summarize"""
