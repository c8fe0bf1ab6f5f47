/// `count` with its noun in the right number: "1 step", "3 steps", "0 steps".
func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
    "\(count) \(count == 1 ? singular : plural)"
}
